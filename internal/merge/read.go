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
	for _, a := range args {
		if !shard.IsBucketURL(a) {
			st, err := os.Stat(a)
			if err != nil {
				if errors.Is(err, fs.ErrNotExist) {
					return nil, fmt.Errorf("%s: no such file or directory", a)
				}
				return nil, err
			}
			if !st.IsDir() {
				b, err := os.ReadFile(a)
				if err != nil {
					return nil, err
				}
				f, err := shard.Decode(b)
				if err != nil {
					return nil, fmt.Errorf("%s: %w", a, err)
				}
				out = append(out, Input{Name: a, File: f})
				continue
			}
		}
		p, err := shard.OpenPlace(ctx, a, open)
		if err != nil {
			return nil, err
		}
		names, err := p.List(ctx, "", ".json")
		if err != nil {
			p.Close()
			return nil, err
		}
		n := 0
		for _, name := range names {
			if base := path.Base(name); !strings.HasPrefix(base, "shard-") {
				continue
			}
			b, err := p.Get(ctx, name)
			if err != nil {
				p.Close()
				return nil, err
			}
			f, err := shard.Decode(b)
			if err != nil {
				p.Close()
				return nil, fmt.Errorf("%s: %w", p.Where(name), err)
			}
			out = append(out, Input{Name: p.Where(name), File: f})
			n++
		}
		p.Close()
		if n == 0 {
			return nil, fmt.Errorf("%s holds no shard documents (shard-I.json): was it the --results-to of a run?", a)
		}
	}
	return out, nil
}
