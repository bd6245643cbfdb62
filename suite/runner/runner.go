// Package runner runs scenario files through an implementation, offline
// or in a cluster, for `gepcheck run` (docs/cluster.md; docs/reports.md):
// it selects the implementation's form, runs the cases, writes the cases
// a cluster shrank as findings, and builds the results and the commands
// that replay them. Flags is the command's flags: validated into Offline
// or Cluster, run, and the outcome printed with its verdict (Printer).
package runner
