package document

import (
	"crypto/rand"
	"encoding/hex"
	"os"
	"runtime"
	"runtime/debug"
	"time"
)

// NewEnvelope starts the envelope of a document: the schema, the run, the
// command and this client. The caller adds the target, lab, options, labels
// and, at the end, the duration.
func NewEnvelope(command, runID string, started time.Time) Envelope {
	return Envelope{Schema: Schema, RunID: runID, Command: command,
		StartedAt: started.UTC().Format(time.RFC3339), Client: ThisClient(), started: started}
}

// NewRunID is sortable by time and unique: 20261122T213000-1a2b3c.
func NewRunID() string {
	b := make([]byte, 3)
	_, _ = rand.Read(b)
	return time.Now().UTC().Format("20060102T150405") + "-" + hex.EncodeToString(b)
}

// ThisClient describes the running objbench and its machine.
func ThisClient() ClientInfo {
	host, _ := os.Hostname()
	return ClientInfo{Version: Version(), Go: runtime.Version(), OS: runtime.GOOS + "/" + runtime.GOARCH, Host: host, CPUs: runtime.NumCPU()}
}

// Version is the module version when installed with go install, else "dev".
func Version() string {
	if bi, ok := debug.ReadBuildInfo(); ok && bi.Main.Version != "" && bi.Main.Version != "(devel)" {
		return bi.Main.Version
	}
	return "dev"
}

// ThresholdResult is one --threshold checked after the run: the
// expression, whether it passed, the measured value (the worst of the
// steps it covers, in Unit: ms, s, MB/s, /s, fraction or none) against Limit
// (in the same unit), the step that gave it, and why it could not be
// measured (Error; it then fails).
type ThresholdResult struct {
	Expr     string  `json:"expr"`
	Pass     bool    `json:"pass"`
	Measured float64 `json:"measured"`
	Limit    float64 `json:"limit"`
	Unit     string  `json:"unit,omitempty"`
	Step     string  `json:"step,omitempty"`
	Error    string  `json:"error,omitempty"`
}
