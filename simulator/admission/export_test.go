package admission

// SetMutant makes the engine run as m until the returned function is
// called.
func SetMutant(m Mutant) (restore func()) {
	old := mutant
	mutant = m
	return func() { mutant = old }
}
