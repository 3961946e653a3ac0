package cli

import (
	"reflect"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

// fieldMark is the annotation naming the settings field a flag sets: a
// domain package's usage error names the field ("RTT"), and the command
// line prints the flag that sets it ("--rtt"). The mark is derived from
// the flag's binding (nameFields), so there is no second list to keep.
const fieldMark = "objbench/field"

// nameFields marks each flag of fs bound to an exported field of the
// struct settings points to with that field's name.
func nameFields(fs *pflag.FlagSet, settings any) {
	v := reflect.ValueOf(settings).Elem()
	type field struct {
		name string
		kind reflect.Kind
	}
	at := map[uintptr]field{}
	for i := range v.NumField() {
		if f := v.Type().Field(i); f.IsExported() {
			at[v.Field(i).Addr().Pointer()] = field{f.Name, f.Type.Kind()}
		}
	}
	fs.VisitAll(func(fl *pflag.Flag) {
		p, kind, ok := boundTo(fl.Value)
		if f, found := at[p]; ok && found && f.kind == kind {
			if err := fs.SetAnnotation(fl.Name, fieldMark, []string{f.name}); err != nil {
				panic(err) // the flag was just visited: a programming error
			}
		}
	})
}

// boundTo is the address and kind of the variable a flag sets: pflag's
// own values are pointers to it; ours say (binder).
func boundTo(v pflag.Value) (uintptr, reflect.Kind, bool) {
	rv := reflect.ValueOf(v)
	if b, ok := v.(binder); ok {
		rv = reflect.ValueOf(b.boundTo())
	}
	if rv.Kind() != reflect.Pointer || rv.IsNil() {
		return 0, 0, false
	}
	return rv.Pointer(), rv.Elem().Kind(), true
}

// binder is a flag value of ours that says which variable it sets.
type binder interface{ boundTo() any }

// fieldOf is the field a flag sets ("" when none is marked).
func fieldOf(f *pflag.Flag) string {
	if v := f.Annotations[fieldMark]; len(v) == 1 {
		return v[0]
	}
	return ""
}

// flagNamer names a field as the flag of cmd that sets it ("--rtt"); a
// field no flag sets keeps its name (a test proves none is left so).
func flagNamer(cmd *cobra.Command) func(field string) string {
	return func(field string) string {
		name := field
		if cmd == nil {
			return name
		}
		cmd.Flags().VisitAll(func(f *pflag.Flag) {
			if fieldOf(f) == field {
				name = "--" + f.Name
			}
		})
		return name
	}
}

// optDuration is a duration flag that may be left unset: the variable is
// nil until the flag is given, so "unset" is no magic value.
type optDuration struct{ p **time.Duration }

func (o optDuration) Set(s string) error {
	d, err := time.ParseDuration(s)
	if err != nil {
		return err
	}
	*o.p = &d
	return nil
}

func (o optDuration) String() string {
	if o.p == nil || *o.p == nil {
		return ""
	}
	return (**o.p).String()
}

func (o optDuration) Type() string { return "duration" }
func (o optDuration) boundTo() any { return o.p }
