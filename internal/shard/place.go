package shard

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"sort"
	"strings"
	"syscall"

	"github.com/objbench/objbench/internal/storage"
)

// OpenBackend opens a storage backend for a results URL (s3://, gs://,
// az://): the caller's providers.Open with its options.
type OpenBackend func(ctx context.Context, t storage.Target) (storage.Backend, error)

// Place is where shards write their documents and merge reads them: a
// bucket prefix through the same Backend as the load, or a directory.
// Names inside it are slash-separated ("RUN/shard-0.json").
type Place struct {
	// URL is the place as the user gave it.
	URL string
	dir string
	b   storage.Backend
	pfx string
}

// IsBucketURL reports whether raw names a bucket rather than a directory.
func IsBucketURL(raw string) bool {
	for _, s := range []string{"s3://", "gs://", "az://", "mem://"} {
		if strings.HasPrefix(raw, s) {
			return true
		}
	}
	return false
}

// OpenPlace opens raw: a bucket URL (with open) or a directory path.
func OpenPlace(ctx context.Context, raw string, open OpenBackend) (*Place, error) {
	p := &Place{URL: raw}
	if !IsBucketURL(raw) {
		if strings.Contains(raw, "://") {
			return nil, fmt.Errorf("--results-to %q: use s3://, gs://, az:// or a directory", raw)
		}
		p.dir = filepath.Clean(raw)
		return p, nil
	}
	t, err := storage.ParseTarget(raw)
	if err != nil {
		return nil, fmt.Errorf("--results-to: %w", err)
	}
	if p.b, err = open(ctx, t); err != nil {
		return nil, fmt.Errorf("results place %s: %w", raw, err)
	}
	p.pfx = t.Prefix
	return p, nil
}

// Close releases the backend.
func (p *Place) Close() {
	if p.b != nil {
		p.b.Close()
	}
}

func (p *Place) key(name string) string { return p.pfx + name }

// Put writes b under name.
func (p *Place) Put(ctx context.Context, name string, b []byte) error {
	if p.b != nil {
		if err := p.b.Put(ctx, p.key(name), bytes.NewReader(b), int64(len(b))); err != nil {
			return fmt.Errorf("write %s: %w", p.Where(name), err)
		}
		return nil
	}
	f := filepath.Join(p.dir, filepath.FromSlash(name))
	if err := os.MkdirAll(filepath.Dir(f), 0o755); err != nil {
		return fmt.Errorf("write %s: %w", f, err)
	}
	tmp := f + ".tmp"
	if err := os.WriteFile(tmp, b, 0o644); err != nil {
		return fmt.Errorf("write %s: %w", f, err)
	}
	if err := os.Rename(tmp, f); err != nil { // readers never see half a document
		return fmt.Errorf("write %s: %w", f, err)
	}
	return nil
}

// ErrNotExist is returned by Get for a missing name.
var ErrNotExist = errors.New("no such document")

// Get reads name.
func (p *Place) Get(ctx context.Context, name string) ([]byte, error) {
	if p.b != nil {
		var buf bytes.Buffer
		if _, err := p.b.Get(ctx, p.key(name), &buf); err != nil {
			if storage.Classify(err) == storage.ClassNotFound {
				return nil, fmt.Errorf("%s: %w", p.Where(name), ErrNotExist)
			}
			return nil, fmt.Errorf("read %s: %w", p.Where(name), err)
		}
		return buf.Bytes(), nil
	}
	b, err := os.ReadFile(filepath.Join(p.dir, filepath.FromSlash(name)))
	if errors.Is(err, fs.ErrNotExist) || errors.Is(err, syscall.ENOTDIR) {
		return nil, fmt.Errorf("%s: %w", p.Where(name), ErrNotExist)
	}
	return b, err
}

// Delete removes name (a check object this process wrote).
func (p *Place) Delete(ctx context.Context, name string) error {
	if p.b != nil {
		return p.b.Delete(ctx, p.key(name))
	}
	return os.Remove(filepath.Join(p.dir, filepath.FromSlash(name)))
}

// List returns the names under dir ("" for all) that end in suffix, sorted.
func (p *Place) List(ctx context.Context, dir, suffix string) ([]string, error) {
	var out []string
	if p.b != nil {
		err := p.b.List(ctx, p.key(dir), func(oi storage.ObjectInfo) error {
			if n := strings.TrimPrefix(oi.Key, p.pfx); strings.HasSuffix(n, suffix) {
				out = append(out, n)
			}
			return nil
		})
		if err != nil {
			return nil, fmt.Errorf("list %s: %w", p.Where(dir), err)
		}
	} else {
		root := filepath.Join(p.dir, filepath.FromSlash(dir))
		err := filepath.WalkDir(root, func(f string, d fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			if !d.IsDir() && strings.HasSuffix(f, suffix) {
				rel, _ := filepath.Rel(p.dir, f)
				out = append(out, filepath.ToSlash(rel))
			}
			return nil
		})
		if err != nil {
			return nil, fmt.Errorf("list %s: %w", root, err)
		}
	}
	sort.Strings(out)
	return out, nil
}

// Where names a document for messages: its URL or file path.
func (p *Place) Where(name string) string {
	if p.b != nil {
		return strings.TrimSuffix(p.URL, "/") + "/" + name
	}
	return filepath.Join(p.dir, filepath.FromSlash(name))
}

// DocName is the name of shard s's document: RUN/shard-I.json.
func DocName(s Spec) string { return path.Join(s.RunID, s.Name()+".json") }

// CheckWritable proves, before any load, that the shard can write its
// document: it writes and deletes a small object next to where the
// document goes, and refuses a place that already holds this shard's
// document (a run id used twice).
func (p *Place) CheckWritable(ctx context.Context, s Spec) error {
	if _, err := p.Get(ctx, DocName(s)); err == nil {
		return fmt.Errorf("--results-to: %s already exists: run %s shard %d was written before; use a new --run-id", p.Where(DocName(s)), s.RunID, s.Index)
	} else if !errors.Is(err, ErrNotExist) {
		return fmt.Errorf("--results-to %s is not readable: %w", p.URL, err)
	}
	name := path.Join(s.RunID, "."+s.Name()+".write-check")
	if err := p.Put(ctx, name, []byte("objbench write check\n")); err != nil {
		return fmt.Errorf("--results-to %s is not writable: %w", p.URL, err)
	}
	if err := p.Delete(ctx, name); err != nil {
		return fmt.Errorf("--results-to %s: delete the write check: %w", p.URL, err)
	}
	return nil
}
