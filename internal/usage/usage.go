// Package usage is objbench's one mark for a mistake the user must fix
// (a setting, a flag, an argument). Domain packages return an Error that
// names settings by their fields; the command line alone maps it to an
// exit code (2) and each field to its flag.
package usage

import (
	"errors"
	"fmt"
	"strings"
)

// Error is a setting the user must change. Field names the setting as the
// domain package knows it ("" when the error is about no one field); the
// command line maps it to the flag that sets it (Rendered).
type Error struct {
	Field string
	Err   error
}

func (e Error) Error() string { return e.Err.Error() }
func (e Error) Unwrap() error { return e.Err }

// Named is a message that names settings by their fields, which the
// command line prints as its flags (Rendered). Alone it is no usage
// error: a keys file that cannot be read names its setting but is not a
// mistake in it. Fieldf makes one that is.
type Named struct {
	format string // the message with each field in braces, "{RTT}"
	args   []any
	err    error // the message with each field as its name
}

func (n *Named) Error() string { return n.err.Error() }
func (n *Named) Unwrap() error { return n.err }

// Fields are the settings the message names, in its order.
func (n *Named) Fields() []string {
	var out []string
	eachField(n.format, func(field string) string { out = append(out, field); return "" })
	return out
}

// Render is the message with each field it names written as name(field)
// says: the command line's flag ("--rtt") where Error writes the field.
func (n *Named) Render(name func(field string) string) string {
	args := make([]any, len(n.args))
	for i, a := range n.args {
		args[i] = a
		if err, ok := a.(error); ok { // a cause that names settings too
			args[i] = rendered{err, Rendered(err, name)}
		}
	}
	return fmt.Errorf(eachField(n.format, name), args...).Error()
}

// rendered is a cause with its fields written as the command line's.
type rendered struct {
	error
	text string
}

func (r rendered) Error() string { return r.text }

// Namedf is a message naming settings, each in format by its field in
// braces: Namedf("{RTT} %s: use a round trip from 0 to %s", ...) reads
// "RTT 5ms: ..." alone, and "--rtt 5ms: ..." on the command line. Only
// format is read for fields: a value in a (the user's input) never is.
func Namedf(format string, a ...any) error {
	return &Named{format: format, args: a, err: fmt.Errorf(eachField(format, func(f string) string { return f }), a...)}
}

// Errorf is a usage error about no one field.
func Errorf(format string, a ...any) error { return Error{Err: fmt.Errorf(format, a...)} }

// Fieldf is a usage error whose message (Namedf) names the settings to
// change; Field is the first one named.
func Fieldf(format string, a ...any) error {
	n := Namedf(format, a...).(*Named)
	e := Error{Err: n}
	if fs := n.Fields(); len(fs) > 0 {
		e.Field = fs[0]
	}
	return e
}

// eachField replaces every "{Field}" in format (a Go identifier in
// braces) by name(Field).
func eachField(format string, name func(string) string) string {
	var b strings.Builder
	for {
		i := strings.IndexByte(format, '{')
		if i < 0 {
			break
		}
		j := strings.IndexByte(format[i:], '}')
		if j < 0 || !isIdent(format[i+1:i+j]) {
			b.WriteString(format[:i+1])
			format = format[i+1:]
			continue
		}
		b.WriteString(format[:i])
		b.WriteString(name(format[i+1 : i+j]))
		format = format[i+j+1:]
	}
	b.WriteString(format)
	return b.String()
}

// isIdent says whether s is an exported Go identifier: a field's name.
func isIdent(s string) bool {
	if s == "" || s[0] < 'A' || s[0] > 'Z' {
		return false
	}
	for _, r := range s {
		if !(r == '_' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9') {
			return false
		}
	}
	return true
}

// Wrap marks err as a usage error; nil stays nil, and an error that is
// already one keeps its field.
func Wrap(err error) error {
	if err == nil || Is(err) {
		return err
	}
	return Error{Err: err}
}

// Is reports whether err is, or wraps, a usage error.
func Is(err error) bool {
	var ue Error
	return errors.As(err, &ue)
}

// FieldOf is the field a usage error names ("" for none, or not one).
func FieldOf(err error) string {
	var ue Error
	if errors.As(err, &ue) {
		return ue.Field
	}
	return ""
}

// Rendered is err's text with the fields named in it (Named) written as
// name says, the rest (what wraps it) unchanged.
func Rendered(err error, name func(field string) string) string {
	text := err.Error()
	var n *Named
	if !errors.As(err, &n) {
		return text
	}
	return strings.Replace(text, n.Error(), n.Render(name), 1)
}
