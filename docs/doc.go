// Package docs holds objbench's manual: README.md's pages, one per
// subject, and the design document. It has no code; its test fails on a
// link in the README or these pages that points at a missing file or
// heading, or out of the repository.
package docs
