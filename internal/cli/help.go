package cli

import (
	"embed"
	"strings"
)

// helpFiles hold each command's long help, then, after a line
// "-- examples --", its examples: help/NAME.txt, NAME the command's path
// joined by "_" (the root is objbench). Prose apart from the wiring.
//
//go:embed help/*.txt
var helpFiles embed.FS

// helpParts reads help/NAME.txt; a missing file is a programming error,
// caught by every test that builds the commands.
func helpParts(name string) (long, examples string) {
	b, err := helpFiles.ReadFile("help/" + name + ".txt")
	if err != nil {
		panic(err)
	}
	long, examples, _ = strings.Cut(strings.TrimSuffix(string(b), "\n"), "\n-- examples --\n")
	return long, examples
}

// longHelp is a command's long help (see helpParts).
func longHelp(name string) string { l, _ := helpParts(name); return l }

// examples are a command's examples (see helpParts).
func examples(name string) string { _, e := helpParts(name); return e }
