package common

// StatusKind colours the explorer's status line: what words a status
// message (a pane, a service) also says which kind it is.
type StatusKind int

const (
	// StatusInfo is news: work started, a state changed.
	StatusInfo StatusKind = iota
	// StatusOK is a success.
	StatusOK
	// StatusErr is a failure or a refused key.
	StatusErr
)
