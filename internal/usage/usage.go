// Package usage is objbench's one mark for a mistake the user must fix
// (a setting, a flag, an argument). Domain packages return an Error; the
// command line alone maps it to an exit code (2) and to its flag.
package usage

import (
	"errors"
	"fmt"
)

// Error is a setting the user must change. Field names the setting as the
// domain package knows it ("" when the error is about no one field); the
// command line maps it to the flag that sets it.
type Error struct {
	Field string
	Err   error
}

func (e Error) Error() string { return e.Err.Error() }
func (e Error) Unwrap() error { return e.Err }

// Errorf is a usage error about no one field.
func Errorf(format string, a ...any) error { return Error{Err: fmt.Errorf(format, a...)} }

// Fieldf is a usage error about the setting field.
func Fieldf(field, format string, a ...any) error {
	return Error{Field: field, Err: fmt.Errorf(format, a...)}
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
