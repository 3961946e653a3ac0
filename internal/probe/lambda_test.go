package probe

import (
	"slices"
	"testing"
)

func TestLambdaArgs(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		env  map[string]string
		in   bool
		args []string
	}{
		{map[string]string{}, false, []string{"lambda"}},
		{map[string]string{"AWS_LAMBDA_RUNTIME_API": "127.0.0.1:9001", "OBJBENCH_ARGS": " --target s3://b  --count 50 "}, true,
			[]string{"lambda", "--target", "s3://b", "--count", "50"}},
	} {
		getenv := func(k string) string { return tc.env[k] }
		if InLambda(getenv) != tc.in || !slices.Equal(LambdaArgs(getenv), tc.args) {
			t.Errorf("env %v: InLambda %v, LambdaArgs %q; want %v, %q", tc.env, InLambda(getenv), LambdaArgs(getenv), tc.in, tc.args)
		}
	}
}
