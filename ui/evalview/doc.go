// Package evalview is the explorer's eval view (e): a golden set run
// with the explorer's settings, its cases as they finish, the summary and
// the verdict, and a case's detail.
package evalview
