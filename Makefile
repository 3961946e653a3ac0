# Used by `sam build` (deploy/aws/template.yaml, BuildMethod makefile).
# Everyday commands are in README.md: go run ./cmd/objbench, scripts/test.
build-ObjbenchFunction:
	CGO_ENABLED=0 GOOS=linux GOARCH=arm64 go build -trimpath -tags lambda.norpc -ldflags="-s -w" -o $(ARTIFACTS_DIR)/bootstrap ./cmd/objbench
