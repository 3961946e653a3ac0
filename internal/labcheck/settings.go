package labcheck

import (
	"github.com/objbench/objbench/internal/lab"
	"github.com/objbench/objbench/internal/usage"
)

// CheckSettings refuses, before any lab starts, what lab check cannot
// prove: no samples per case, lab settings that make no configuration
// (lab.Settings.Config), and a directory bucket (Express), whose requests
// are signed with its sessions while the check's go unsigned to the
// general purpose bucket: the check proves the link model, not a bucket's
// class. Its errors are the user's to fix, naming their fields.
func CheckSettings(s lab.Settings, profile string, samples int) error {
	if samples <= 0 {
		return usage.Fieldf("{Samples} must be positive")
	}
	if _, err := s.Config(nil, profile); err != nil {
		return err
	}
	if s.Express {
		return usage.Fieldf("lab check proves the link model, not a bucket's class: {Express} applies to lab, run, lab exec and explain")
	}
	return nil
}
