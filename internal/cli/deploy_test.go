package cli

import (
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"

	"github.com/objbench/objbench/internal/probe"
)

// deployedCommand is an objbench command line found in a deploy/ file,
// with the environment variable names of its container.
type deployedCommand struct {
	file string
	args []string
	env  []string
}

// walk collects objbench command lines from a YAML tree: container args
// that start with serve or probe, and Lambda's OBJBENCH_ARGS.
func walk(n *yaml.Node, file string, env []string, out *[]deployedCommand) {
	if n.Kind == yaml.MappingNode {
		for i := 0; i+1 < len(n.Content); i += 2 {
			if n.Content[i].Value == "env" && n.Content[i+1].Kind == yaml.SequenceNode {
				for _, e := range n.Content[i+1].Content {
					for j := 0; j+1 < len(e.Content); j += 2 {
						if e.Content[j].Value == "name" {
							env = append(env, e.Content[j+1].Value)
						}
					}
				}
			}
		}
		for i := 0; i+1 < len(n.Content); i += 2 {
			k, v := n.Content[i].Value, n.Content[i+1]
			switch {
			case k == "args" && v.Kind == yaml.SequenceNode && len(v.Content) > 0 && (v.Content[0].Value == "serve" || v.Content[0].Value == "probe"):
				var args []string
				for _, a := range v.Content {
					args = append(args, a.Value)
				}
				*out = append(*out, deployedCommand{file, args, env})
			case k == "OBJBENCH_ARGS":
				// CloudFormation's ${Name} become placeholders.
				s := regexp.MustCompile(`\$\{[^}]+\}`).ReplaceAllString(v.Value, "placeholder")
				*out = append(*out, deployedCommand{file, append([]string{"lambda"}, strings.Fields(s)...), env})
			}
		}
	}
	for _, c := range n.Content {
		walk(c, file, env, out)
	}
}

// TestDeployFiles: every objbench command in deploy/ parses with today's
// flags, and a server reachable beyond loopback has a token or says the
// platform authenticates callers.
func TestDeployFiles(t *testing.T) {
	t.Parallel()
	files, _ := filepath.Glob("../../deploy/*/*.yaml")
	if len(files) < 4 {
		t.Fatalf("deploy files: %v", files)
	}
	var cmds []deployedCommand
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		dec := yaml.NewDecoder(strings.NewReader(string(b)))
		for {
			var n yaml.Node
			if err := dec.Decode(&n); err == io.EOF {
				break
			} else if err != nil {
				t.Fatalf("%s: %v", f, err)
			}
			walk(&n, filepath.Base(filepath.Dir(f))+"/"+filepath.Base(f), nil, &cmds)
		}
	}
	found := map[string]bool{}
	for _, c := range cmds {
		found[c.args[0]] = true
		root := newRootCmd(io.Discard, io.Discard)
		cmd, rest, err := root.Find(c.args)
		if err != nil || cmd.Name() != c.args[0] {
			t.Errorf("%s: %v: %v", c.file, c.args, err)
			continue
		}
		if err := cmd.ParseFlags(rest); err != nil {
			t.Errorf("%s: %v: %v", c.file, c.args, err)
			continue
		}
		if c.args[0] != "serve" {
			continue
		}
		listen, _ := cmd.Flags().GetString("listen")
		addr, err := probe.ListenAddr(listen, os.Getenv("PORT"))
		if err != nil {
			t.Errorf("%s: --listen: %v", c.file, err)
			continue
		}
		noAuth, _ := cmd.Flags().GetBool("allow-unauthenticated")
		token, _ := cmd.Flags().GetString("token")
		hasTokenEnv := strings.Contains(strings.Join(c.env, " "), "OBJBENCH_TOKEN")
		if !probe.IsLoopback(addr) && !noAuth && token == "" && !hasTokenEnv {
			t.Errorf("%s: serve on %s with neither a token nor --allow-unauthenticated", c.file, addr)
		}
	}
	if !found["serve"] || !found["lambda"] {
		t.Errorf("deploy/ runs %v; want serve and the Lambda handler", found)
	}
}
