package merge

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"strings"

	"github.com/objbench/objbench/internal/shard"
)

// Read reads the shard documents named by args: each a document file, or
// a directory or bucket URL (s3://, gs://, az://) under which every
// shard-I.json is read (a --results-to place, or one run's folder in it).
// A corrupted document is an error naming it.
func Read(ctx context.Context, args []string, open shard.OpenBackend) ([]Input, error) {
	var out []Input
	err := ReadEach(ctx, args, open, func(x Input) error { out = append(out, x); return nil })
	return out, err
}

// ReadEach reads the documents as Read does and hands each to fn as soon
// as it is decoded (two at a time), so that a caller that keeps little of
// each (Merger) never holds them all.
func ReadEach(ctx context.Context, args []string, open shard.OpenBackend, fn func(Input) error) error {
	type job struct {
		name string
		get  func() ([]byte, error)
	}
	var jobs []job
	var places []*shard.Place
	defer func() {
		for _, p := range places {
			p.Close()
		}
	}()
	for _, a := range args {
		if !shard.IsBucketURL(a) {
			st, err := os.Stat(a)
			if err != nil {
				if errors.Is(err, fs.ErrNotExist) {
					return fmt.Errorf("%s: no such file or directory", a)
				}
				return err
			}
			if !st.IsDir() {
				jobs = append(jobs, job{a, func() ([]byte, error) { return os.ReadFile(a) }})
				continue
			}
		}
		p, err := shard.OpenPlace(ctx, a, open)
		if err != nil {
			return err
		}
		places = append(places, p)
		names, err := p.List(ctx, "", ".json")
		if err != nil {
			return err
		}
		n := 0
		for _, name := range names {
			if !strings.HasPrefix(path.Base(name), "shard-") {
				continue
			}
			jobs = append(jobs, job{p.Where(name), func() ([]byte, error) { return p.Get(ctx, name) }})
			n++
		}
		if n == 0 {
			return fmt.Errorf("%s holds no shard documents (shard-I.json): was it the --results-to of a run?", a)
		}
	}
	// Two decoders ahead of fn; results are handed over in order.
	type done struct {
		x   Input
		err error
	}
	results := make([]chan done, len(jobs))
	for i := range results {
		results[i] = make(chan done, 1)
	}
	sem := make(chan struct{}, 2)
	stop := make(chan struct{})
	defer close(stop)
	go func() {
		for i, j := range jobs {
			select {
			case sem <- struct{}{}:
			case <-stop:
				return
			}
			go func() {
				b, err := j.get()
				var f *shard.File
				if err == nil {
					if f, err = shard.Decode(b); err != nil {
						err = fmt.Errorf("%s: %w", j.name, err)
					}
				}
				results[i] <- done{Input{Name: j.name, File: f}, err}
			}()
		}
	}()
	for i := range jobs {
		d := <-results[i]
		<-sem
		if d.err != nil {
			return d.err
		}
		if err := fn(d.x); err != nil {
			return err
		}
	}
	return nil
}
