package cli

import (
	"io"
	"io/fs"
	"regexp"
	"strings"
	"testing"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/objbench/objbench/internal/report/terminal"
)

// TestHelpFiles: every help file is a command's, whose long help and
// examples it gives whole (no separator or file ending left in them).
func TestHelpFiles(t *testing.T) {
	t.Parallel()
	names, err := fs.Glob(helpFiles, "help/*.txt")
	if err != nil || len(names) == 0 {
		t.Fatalf("help files %v, %v", names, err)
	}
	commands := map[string]*cobra.Command{}
	var walk func(c *cobra.Command, name string)
	walk = func(c *cobra.Command, name string) {
		commands[name] = c
		for _, s := range c.Commands() {
			if c.Parent() == nil {
				walk(s, s.Name())
			} else {
				walk(s, name+"_"+s.Name())
			}
		}
	}
	walk(newRootCmd(io.Discard, io.Discard), "objbench")
	for _, n := range names {
		name := strings.TrimSuffix(strings.TrimPrefix(n, "help/"), ".txt")
		c, ok := commands[name]
		if !ok {
			t.Errorf("%s: no command %s", n, name)
			continue
		}
		long, ex := helpParts(name)
		long = strings.Replace(long, "{{profiles}}", terminal.ProfileList(labProfiles()), 1) // lab's
		if c.Long != long || c.Example != ex || long == "" {
			t.Errorf("%s: the command's help is not the file's", n)
		}
		if strings.Contains(long+ex, "-- examples --") || strings.HasSuffix(long, "\n") || strings.HasSuffix(ex, "\n") {
			t.Errorf("%s: separator or trailing newline left in the help", n)
		}
	}
	for name, c := range commands {
		if c.Long == "" && !c.Hidden && name != "help" && name != "completion" && !strings.HasPrefix(name, "completion_") {
			t.Errorf("%s has no long help", name)
		}
	}
}

// TestHelpSpeaksToUsers: no help text or flag usage names the project's
// internal history ("seed 000's probe", "(seed 002)"): words a user has
// no way to know. Each says what the command does instead.
func TestHelpSpeaksToUsers(t *testing.T) {
	t.Parallel()
	internal := regexp.MustCompile(`(?i)\bseeds? ?\d{3}\b`)
	var walk func(c *cobra.Command)
	walk = func(c *cobra.Command) {
		texts := []string{c.Short, c.Long, c.Example}
		c.LocalFlags().VisitAll(func(f *pflag.Flag) { texts = append(texts, f.Usage) })
		for _, s := range texts {
			if m := internal.FindString(s); m != "" {
				t.Errorf("%s: help says %q", c.CommandPath(), m)
			}
		}
		for _, sub := range c.Commands() {
			walk(sub)
		}
	}
	walk(newRootCmd(io.Discard, io.Discard))
}
