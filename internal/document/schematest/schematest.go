// Package schematest checks objbench/v1 documents against the published
// JSON Schema, docs/objbench-v1.schema.json, for tests: the schema's own
// rules (types, required fields, no field it does not describe) and, with
// a message that says where to add it, any field the schema lacks.
package schematest

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"

	"github.com/santhosh-tekuri/jsonschema/v6"
)

// File is the schema's path from the repository's root.
const File = "docs/objbench-v1.schema.json"

// id is the schema's $id.
const id = "urn:objbench:schema:objbench-v1"

var load = sync.OnceValues(func() (*loaded, error) {
	path, err := find()
	if err != nil {
		return nil, err
	}
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	raw, err := jsonschema.UnmarshalJSON(bytes.NewReader(b))
	if err != nil {
		return nil, fmt.Errorf("%s: %w", File, err)
	}
	c := jsonschema.NewCompiler()
	if err := c.AddResource(id, raw); err != nil {
		return nil, err
	}
	s, err := c.Compile(id)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", File, err)
	}
	var tree map[string]any
	if err := json.Unmarshal(b, &tree); err != nil {
		return nil, err
	}
	return &loaded{schema: s, tree: tree}, nil
})

type loaded struct {
	schema *jsonschema.Schema
	tree   map[string]any
}

// find looks for the schema in the working directory and its parents (a
// test runs in its package's directory).
func find() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for {
		p := filepath.Join(dir, File)
		if _, err := os.Stat(p); err == nil {
			return p, nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", fmt.Errorf("%s not found above the working directory", File)
		}
		dir = parent
	}
}

// Tree is the schema as decoded JSON.
func Tree() (map[string]any, error) {
	l, err := load()
	if err != nil {
		return nil, err
	}
	return l.tree, nil
}

// Check validates one document (as --json prints it). Fields the schema
// does not describe are named first, each with the $defs entry to add it
// to; then the validator's own findings.
func Check(doc []byte) error {
	l, err := load()
	if err != nil {
		return err
	}
	var v any
	if err := json.Unmarshal(doc, &v); err != nil {
		return fmt.Errorf("not JSON: %w", err)
	}
	var errs []error
	if obj, ok := v.(map[string]any); ok {
		if def := l.rootDef(obj); def != "" {
			for _, m := range l.undescribed(v, map[string]any{"$ref": "#/$defs/" + def}, "") {
				errs = append(errs, errors.New(m))
			}
		}
	}
	inst, err := jsonschema.UnmarshalJSON(bytes.NewReader(doc))
	if err != nil {
		return err
	}
	if err := l.schema.Validate(inst); err != nil {
		errs = append(errs, fmt.Errorf("%s: %v", File, err))
	}
	return errors.Join(errs...)
}

// rootDef is the $defs entry the schema's top-level if/then dispatch
// picks for obj ("" when none does).
func (l *loaded) rootDef(obj map[string]any) string {
	all, _ := l.tree["allOf"].([]any)
	for _, x := range all {
		br, _ := x.(map[string]any)
		cond, _ := br["if"].(map[string]any)
		then, _ := br["then"].(map[string]any)
		if cond == nil || then == nil || !matches(obj, cond) {
			continue
		}
		ref, _ := then["$ref"].(string)
		return strings.TrimPrefix(ref, "#/$defs/")
	}
	return ""
}

// matches evaluates the dispatch's conditions: required keys, an enum of
// values for a key, and "not" of those.
func matches(obj map[string]any, cond map[string]any) bool {
	if not, ok := cond["not"].(map[string]any); ok && matches(obj, not) {
		return false
	}
	req, _ := cond["required"].([]any)
	for _, k := range req {
		if _, ok := obj[k.(string)]; !ok {
			return false
		}
	}
	props, _ := cond["properties"].(map[string]any)
	for k, p := range props {
		enum, _ := p.(map[string]any)["enum"].([]any)
		if v, ok := obj[k]; ok && enum != nil && !slices.Contains(enum, v) {
			return false
		}
	}
	return true
}

// def is a $defs entry by reference.
func (l *loaded) def(ref string) (string, map[string]any) {
	name := strings.TrimPrefix(ref, "#/$defs/")
	defs, _ := l.tree["$defs"].(map[string]any)
	d, _ := defs[name].(map[string]any)
	return name, d
}

// undescribed walks v along schema node s and names every object key that
// no properties list holds.
func (l *loaded) undescribed(v any, s map[string]any, at string) []string {
	owner := ""
	for depth := 0; depth < 8; depth++ { // follow references and nullable wrappers
		if ref, ok := s["$ref"].(string); ok {
			owner, s = l.def(ref)
			continue
		}
		if alts, ok := s["anyOf"].([]any); ok && v != nil {
			for _, b := range alts {
				if bm, _ := b.(map[string]any); bm["type"] != "null" {
					s = bm
					break
				}
			}
			continue
		}
		break
	}
	if s == nil {
		return nil
	}
	var out []string
	switch v := v.(type) {
	case map[string]any:
		props := map[string]any{}
		owners := map[string]string{}
		collect := func(name string, d map[string]any) {
			p, _ := d["properties"].(map[string]any)
			for k, x := range p {
				props[k], owners[k] = x, name
			}
		}
		collect(owner, s)
		all, _ := s["allOf"].([]any)
		for _, x := range all {
			if ref, ok := x.(map[string]any)["$ref"].(string); ok {
				collect(l.def(ref))
			}
		}
		_, hasProps := s["properties"]
		extra, isMap := s["additionalProperties"].(map[string]any)
		for _, k := range slices.Sorted(maps.Keys(v)) {
			path := at + "/" + k
			switch p, ok := props[k]; {
			case ok:
				out = append(out, l.undescribed(v[k], p.(map[string]any), path)...)
			case isMap && !hasProps:
				out = append(out, l.undescribed(v[k], extra, path)...)
			default:
				where := "$defs/" + owner + "/properties"
				if owner == "" {
					where = "the schema object at the parent field"
				}
				out = append(out, fmt.Sprintf("field %q at %s is not described in %s: add it to %s with a \"description\" "+
					"(what it means and its unit) and its type", k, path, File, where))
			}
		}
	case []any:
		if items, ok := s["items"].(map[string]any); ok {
			for i, x := range v {
				out = append(out, l.undescribed(x, items, fmt.Sprintf("%s/%d", at, i))...)
			}
		}
	}
	return out
}
