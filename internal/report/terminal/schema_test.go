package terminal

import (
	"bytes"
	"fmt"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/objbench/objbench/internal/analysis"
	"github.com/objbench/objbench/internal/document"
	"github.com/objbench/objbench/internal/document/schematest"
	"github.com/objbench/objbench/internal/results"
)

// fill sets every settable field of v to a value that is not its zero
// (one entry in every slice and map), so that no omitempty field is left
// out of the JSON: a field added to a document type without its
// description in the schema makes TestEveryFieldInTheSchema fail.
func fill(v reflect.Value, command string) {
	switch v.Kind() {
	case reflect.Pointer:
		v.Set(reflect.New(v.Type().Elem()))
		fill(v.Elem(), command)
	case reflect.Struct:
		for i := range v.NumField() {
			f := v.Field(i)
			if !f.CanSet() {
				continue
			}
			switch v.Type().Field(i).Name {
			case "Schema":
				f.SetString(document.Schema)
			case "Command":
				f.SetString(command)
			case "Severity":
				f.SetString("warn")
			default:
				fill(f, command)
			}
		}
	case reflect.String:
		v.SetString("x")
	case reflect.Bool:
		v.SetBool(true)
	case reflect.Int, reflect.Int64, reflect.Int32:
		v.SetInt(1)
	case reflect.Float64:
		v.SetFloat(1.5)
	case reflect.Slice:
		v.Set(reflect.MakeSlice(v.Type(), 1, 1))
		fill(v.Index(0), command)
	case reflect.Array:
		for i := range v.Len() {
			fill(v.Index(i), command)
		}
	case reflect.Map:
		v.Set(reflect.MakeMap(v.Type()))
		e := reflect.New(v.Type().Elem()).Elem()
		fill(e, command)
		v.SetMapIndex(reflect.ValueOf("connect"), e) // a phase name: phase maps take only those
	}
}

func filled[T any](command string) *T {
	var x T
	fill(reflect.ValueOf(&x).Elem(), command)
	return &x
}

// TestEveryFieldInTheSchema: every field of every document type, filled,
// validates against docs/objbench-v1.schema.json, which describes each.
func TestEveryFieldInTheSchema(t *testing.T) {
	t.Parallel()
	enc := func(d document.Doc) []byte {
		b, err := document.Encode(d)
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	var comps, probes, idle bytes.Buffer
	comp := filled[analysis.Comparison]("")
	if err := WriteComparisonsJSON(&comps, []analysis.Comparison{*comp}); err != nil {
		t.Fatal(err)
	}
	if err := WriteProbeJSON(&probes, []*document.Document{filled[document.Document]("probe"), filled[document.Document]("probe")}); err != nil {
		t.Fatal(err)
	}
	res := document.IdleResult{Lower: time.Second, Upper: 2 * time.Second, Wall: time.Minute,
		Probes: []document.IdleProbe{{Round: 1, Idle: time.Second, Reused: true, Skipped: true, Err: "x"}}}
	if err := WriteIdleJSON(&idle, *filled[document.TargetInfo](""), filled[document.LabInfo](""), res); err != nil {
		t.Fatal(err)
	}
	var profiles bytes.Buffer
	if err := WriteProfileRows(&profiles, "a.json", "b.json", []document.ProfileRow{*filled[document.ProfileRow]("")}, true, true); err != nil {
		t.Fatal(err)
	}
	var runs bytes.Buffer
	listed := results.Listed{ID: "x", StartedAt: time.Now(), Command: "run", TargetURL: "s3://b", LabelsJSON: `{"k":"v"}`, DurationS: 1.5, Interrupted: true}
	if err := WriteRuns(&runs, []results.Listed{listed}, true); err != nil {
		t.Fatal(err)
	}
	var check bytes.Buffer
	if err := WriteLabCheckJSON(&check, []document.LabCheckMode{*filled[document.LabCheckMode]("")}, false); err != nil {
		t.Fatal(err)
	}
	docs := map[string][]byte{
		"lab check":        check.Bytes(),
		"runs":             runs.Bytes(),
		"compare profiles": profiles.Bytes(),
		"run":              enc(filled[document.Document]("run")),
		"merge":            enc(filled[document.Document]("merge")),
		"strategies":       enc(filled[document.StrategiesDocument]("strategies")),
		"startup":          enc(filled[document.StartupDocument]("startup")),
		"explain":          enc(filled[document.ExplainDocument]("explain")),
		"compare":          comps.Bytes(),
		"probe":            probes.Bytes(),
		"idle-timeout":     idle.Bytes(),
	}
	for name, b := range docs {
		if err := schematest.Check(b); err != nil {
			t.Errorf("%s document:\n%v", name, err)
		}
	}
}

// TestSchemaDescribesEachField: every field in the schema, and every type
// in its $defs, says what it means (and its unit).
func TestSchemaDescribesEachField(t *testing.T) {
	t.Parallel()
	tree, err := schematest.Tree()
	if err != nil {
		t.Fatal(err)
	}
	var walk func(v any, at string)
	walk = func(v any, at string) {
		switch v := v.(type) {
		case map[string]any:
			// The top level's anyOf and if branches pick a document by its
			// command: conditions, not fields.
			cond := strings.HasPrefix(at, "#/anyOf") || strings.HasSuffix(at, "/if")
			if props, ok := v["properties"].(map[string]any); ok && !cond {
				for k, p := range props {
					if d, _ := p.(map[string]any)["description"].(string); len(strings.Fields(d)) < 2 {
						t.Errorf("%s: %s/properties/%s has no description: say what it means and its unit", schematest.File, at, k)
					}
				}
			}
			for k, x := range v {
				walk(x, at+"/"+k)
			}
		case []any:
			for i, x := range v {
				walk(x, fmt.Sprintf("%s/%d", at, i))
			}
		}
	}
	walk(tree, "#")
	defs, _ := tree["$defs"].(map[string]any)
	for name, d := range defs {
		if s, _ := d.(map[string]any)["description"].(string); s == "" {
			t.Errorf("%s: $defs/%s has no description", schematest.File, name)
		}
	}
}

// TestSchemaNamesUndescribedFields: a field the schema lacks fails, with
// the place to describe it.
func TestSchemaNamesUndescribedFields(t *testing.T) {
	t.Parallel()
	d := filled[document.Document]("run")
	b, err := document.Encode(d)
	if err != nil {
		t.Fatal(err)
	}
	b = bytes.Replace(b, []byte(`"reconnects": 1,`), []byte(`"reconnects": 1, "new_field_ms": 2,`), 1)
	err = schematest.Check(b)
	if err == nil || !strings.Contains(err.Error(), `field "new_field_ms" at /results/0/new_field_ms is not described in docs/objbench-v1.schema.json: add it to $defs/Result/properties`) {
		t.Errorf("an undescribed field: %v", err)
	}
}
