package terminal

import (
	"io"
	"os"

	"golang.org/x/term"
)

// IsTerminal says whether w is a terminal, where progress is drawn.
func IsTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	return ok && term.IsTerminal(int(f.Fd()))
}
