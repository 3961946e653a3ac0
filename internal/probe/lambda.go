package probe

import "strings"

// InLambda says whether a process with environment getenv was started by
// the AWS Lambda runtime (its API address is set), so that main runs the
// handler.
func InLambda(getenv func(string) string) bool { return getenv("AWS_LAMBDA_RUNTIME_API") != "" }

// LambdaArgs are the command line of the handler: `lambda` and the flags
// in OBJBENCH_ARGS (e.g. "--target s3://my-bucket --count 50").
func LambdaArgs(getenv func(string) string) []string {
	return append([]string{"lambda"}, strings.Fields(getenv("OBJBENCH_ARGS"))...)
}
