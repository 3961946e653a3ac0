// Package docs holds objbench's manual: README.md's pages, one per
// subject, and the design document. It has no code; its tests fail on a
// link in the README or these pages that points at a missing file or
// heading, or out of the repository, and on a document cited in code
// (docs/design.md#timers) that is not in the repository.
package docs
