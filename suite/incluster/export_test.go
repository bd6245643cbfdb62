package incluster

// SetQuietStarted sets the hook called as a quiet period starts, for the
// external tests' planted flips (local_faults_test.go); nil unsets it.
func SetQuietStarted(f func(p *Plan)) { quietStarted = f }
