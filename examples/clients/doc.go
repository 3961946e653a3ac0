// Package clients holds the test of the client-library comparison: the
// programs under examples/clients (Python, Node.js and Go SDKs, each naive,
// reused and parallel) run under objbench explain by the compare script,
// and the counts every one of them must show.
package clients
