package cli

import (
	"bytes"
	"encoding/json"
	"io"
	"os"
	"strconv"
	"strings"
	"testing"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	"sigs.k8s.io/yaml"

	"github.com/objbench/objbench/internal/shard"
)

// strict decodes JSON into v, refusing unknown fields.
func strict(t *testing.T, name string, b []byte, v any) {
	t.Helper()
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		t.Fatalf("%s: %v", name, err)
	}
}

// yamlDocs are the YAML documents of a file, each as JSON.
func yamlDocs(t *testing.T, path string) [][]byte {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var out [][]byte
	for _, part := range strings.Split(string(b), "\n---\n") {
		j, err := yaml.YAMLToJSON([]byte(part))
		if err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		if string(j) != "null" {
			out = append(out, j)
		}
	}
	return out
}

// checkCommand parses an objbench command line with today's flags, and
// returns the value of flag name ("" if absent).
func checkCommand(t *testing.T, file string, args []string, engineEnv map[string]string) map[string]string {
	t.Helper()
	root := newRootCmd(io.Discard, io.Discard)
	cmd, rest, err := root.Find(args)
	if err != nil || cmd.Name() != args[0] {
		t.Fatalf("%s: %v: %v", file, args, err)
	}
	if err := cmd.ParseFlags(rest); err != nil {
		t.Fatalf("%s: %v: %v", file, args, err)
	}
	got := map[string]string{}
	for _, n := range []string{"shards", "results-to", "start-in", "expect", "run-id"} {
		if f := cmd.Flags().Lookup(n); f != nil {
			got[n] = f.Value.String()
		}
	}
	if args[0] == "run" {
		shards, _ := strconv.Atoi(got["shards"])
		s, err := shard.Resolve(shard.Flags{Shards: shards, RunID: got["run-id"]}, func(k string) string { return engineEnv[k] })
		if err != nil || !s.Active() {
			t.Fatalf("%s: the engine's variables %v do not place a shard: %v", file, engineEnv, err)
		}
		if got["results-to"] == "" {
			t.Errorf("%s: a shard without --results-to cannot be merged", file)
		}
	}
	return got
}

// TestDeployShards: the three engines' files parse strictly (Kubernetes
// objects with the k8s.io/api types), their objbench command lines parse
// with today's flags and place a shard with the engine's variables, the
// shard count in the command is the engine's, all shards run at once, and
// the permissions are only object access.
func TestDeployShards(t *testing.T) {
	t.Parallel()
	// Kubernetes: an Indexed Job and its merge Job.
	var job batchv1.Job
	var sa corev1.ServiceAccount
	for _, d := range yamlDocs(t, "../../deploy/kubernetes/shards.yaml") {
		var meta struct{ Kind string }
		_ = json.Unmarshal(d, &meta)
		switch meta.Kind {
		case "Job":
			strict(t, "shards.yaml Job", d, &job)
		case "ServiceAccount":
			strict(t, "shards.yaml ServiceAccount", d, &sa)
		default:
			t.Errorf("shards.yaml: unexpected %s", meta.Kind)
		}
	}
	if sa.AutomountServiceAccountToken == nil || *sa.AutomountServiceAccountToken {
		t.Error("shards.yaml: the pods call no Kubernetes API: automountServiceAccountToken must be false")
	}
	spec := job.Spec
	if spec.CompletionMode == nil || *spec.CompletionMode != batchv1.IndexedCompletion || spec.Completions == nil || spec.Parallelism == nil ||
		*spec.Parallelism != *spec.Completions {
		t.Fatalf("shards.yaml: want an Indexed Job running all its completions at once, got %+v", spec)
	}
	c := spec.Template.Spec.Containers[0]
	env := map[string]string{shard.EnvK8sIndex: "3"}
	for _, e := range c.Env {
		if e.ValueFrom != nil && e.ValueFrom.FieldRef != nil {
			env[e.Name] = job.Name
		}
	}
	got := checkCommand(t, "shards.yaml", c.Args, env)
	if got["shards"] != strconv.Itoa(int(*spec.Completions)) {
		t.Errorf("shards.yaml: --shards %s but completions %d", got["shards"], *spec.Completions)
	}
	var merge batchv1.Job
	strict(t, "merge.yaml", yamlDocs(t, "../../deploy/kubernetes/merge.yaml")[0], &merge)
	mg := checkCommand(t, "merge.yaml", merge.Spec.Template.Spec.Containers[0].Args, nil)
	if mg["expect"] != got["shards"] || !strings.Contains(strings.Join(merge.Spec.Template.Spec.Containers[0].Args, " "), got["results-to"]+job.Name+"/") {
		t.Errorf("merge.yaml: expects %s shards of %v; want %s of %s%s/", mg["expect"], merge.Spec.Template.Spec.Containers[0].Args, got["shards"], got["results-to"], job.Name)
	}

	// Cloud Run Job: its container is a Kubernetes container.
	var crj struct {
		APIVersion string `json:"apiVersion"`
		Kind       string `json:"kind"`
		Metadata   struct {
			Name string `json:"name"`
		} `json:"metadata"`
		Spec struct {
			Template struct {
				Spec struct {
					TaskCount   int `json:"taskCount"`
					Parallelism int `json:"parallelism"`
					Template    struct {
						Spec struct {
							ServiceAccountName string             `json:"serviceAccountName"`
							MaxRetries         int                `json:"maxRetries"`
							TimeoutSeconds     string             `json:"timeoutSeconds"`
							Containers         []corev1.Container `json:"containers"`
						} `json:"spec"`
					} `json:"template"`
				} `json:"spec"`
			} `json:"template"`
		} `json:"spec"`
	}
	strict(t, "cloudrun/job.yaml", yamlDocs(t, "../../deploy/cloudrun/job.yaml")[0], &crj)
	cr := crj.Spec.Template.Spec
	if crj.Kind != "Job" || cr.TaskCount < 2 || cr.Parallelism != cr.TaskCount {
		t.Errorf("cloudrun/job.yaml: %s with %d tasks, %d at once; want a Job running all its tasks at once", crj.Kind, cr.TaskCount, cr.Parallelism)
	}
	checkCommand(t, "cloudrun/job.yaml", cr.Template.Spec.Containers[0].Args, map[string]string{
		shard.EnvCloudRunIndex: "1", shard.EnvCloudRunCount: strconv.Itoa(cr.TaskCount), shard.EnvCloudRunExec: "objbench-shards-x7k2p"})

	// AWS Batch: the job definition, the array submission and the merge's.
	var def struct {
		JobDefinitionName    string   `json:"jobDefinitionName"`
		Type                 string   `json:"type"`
		PlatformCapabilities []string `json:"platformCapabilities"`
		RetryStrategy        struct {
			Attempts int `json:"attempts"`
		} `json:"retryStrategy"`
		Timeout struct {
			AttemptDurationSeconds int `json:"attemptDurationSeconds"`
		} `json:"timeout"`
		ContainerProperties struct {
			Image                string            `json:"image"`
			Command              []string          `json:"command"`
			JobRoleArn           string            `json:"jobRoleArn"`
			ExecutionRoleArn     string            `json:"executionRoleArn"`
			ResourceRequirements []json.RawMessage `json:"resourceRequirements"`
			NetworkConfiguration json.RawMessage   `json:"networkConfiguration"`
			ReadonlyRootFS       bool              `json:"readonlyRootFilesystem"`
		} `json:"containerProperties"`
	}
	b, _ := os.ReadFile("../../deploy/aws/batch-job-definition.json")
	strict(t, "batch-job-definition.json", b, &def)
	var sub, msub struct {
		JobName         string `json:"jobName"`
		JobQueue        string `json:"jobQueue"`
		JobDefinition   string `json:"jobDefinition"`
		ArrayProperties struct {
			Size int `json:"size"`
		} `json:"arrayProperties"`
		DependsOn []struct {
			JobID string `json:"jobId"`
		} `json:"dependsOn"`
		ContainerOverrides struct {
			Command []string `json:"command"`
		} `json:"containerOverrides"`
	}
	b, _ = os.ReadFile("../../deploy/aws/batch-submit.json")
	strict(t, "batch-submit.json", b, &sub)
	got = checkCommand(t, "batch-job-definition.json", def.ContainerProperties.Command,
		map[string]string{shard.EnvBatchIndex: "2", shard.EnvBatchJobID: "a1b2c3:2"})
	if got["shards"] != strconv.Itoa(sub.ArrayProperties.Size) || sub.JobDefinition != def.JobDefinitionName {
		t.Errorf("batch: --shards %s but the array's size %d (definition %s)", got["shards"], sub.ArrayProperties.Size, sub.JobDefinition)
	}
	b, _ = os.ReadFile("../../deploy/aws/batch-merge-submit.json")
	strict(t, "batch-merge-submit.json", b, &msub)
	mg = checkCommand(t, "batch-merge-submit.json", msub.ContainerOverrides.Command, nil)
	if len(msub.DependsOn) != 1 || mg["expect"] != got["shards"] {
		t.Errorf("batch merge: depends on %v, expects %s shards", msub.DependsOn, mg["expect"])
	}

	// IAM: object access to the benchmark's and the results' prefixes, nothing more.
	var pol struct {
		Version   string
		Statement []struct {
			Sid       string
			Effect    string
			Action    json.RawMessage
			Resource  string
			Condition json.RawMessage `json:",omitempty"`
		}
	}
	b, _ = os.ReadFile("../../deploy/aws/iam-policy.json")
	strict(t, "iam-policy.json", b, &pol)
	for _, s := range pol.Statement {
		if s.Effect != "Allow" || strings.Contains(string(s.Action), "*") || s.Resource == "*" ||
			!strings.HasSuffix(s.Resource, "/objbench/*") && len(s.Condition) == 0 {
			t.Errorf("iam-policy.json: %s grants more than object access under objbench/: %s on %s", s.Sid, s.Action, s.Resource)
		}
	}
}
