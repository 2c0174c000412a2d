// Package chunksview is the explorer's chunk audit view (C): the audit
// of every chunk the backend lists, run in a command with its progress,
// and its report.
package chunksview
