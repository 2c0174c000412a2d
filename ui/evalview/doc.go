// Package evalview is the explorer's eval view (e): a golden set run
// with the explorer's settings, its cases as they finish, the summary and
// the verdict, and a case's detail. Its Runner runs the sets, one at a
// time, streaming each run's progress and cases to the root in order.
package evalview
