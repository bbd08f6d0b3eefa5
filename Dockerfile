# goodput's container image: one static binary on a distroless base, run as
# a non-root user. The same image runs every command: bench and merge in a
# Kubernetes Job (see goodput k8s), sim as a server to test against.
#
# Build (Docker, or any BuildKit or Buildah builder), with the version and
# commit stamped into the binary:
#
#   docker build -t goodput \
#       --build-arg VERSION="$(git describe --tags --always --dirty)" \
#       --build-arg REVISION="$(git rev-parse HEAD)" .
#   docker run --rm goodput version
#   docker run --rm -p 8000:8000 goodput sim --host 0.0.0.0
#   docker run --rm --network host goodput bench --base-url http://127.0.0.1:8000

ARG GO_VERSION=1.26

FROM golang:${GO_VERSION}-bookworm AS build
WORKDIR /src
# Modules first, so that a change of source keeps this layer.
COPY go.mod go.sum ./
RUN go mod download
COPY . .
ARG VERSION=""
ARG REVISION=""
# No cgo: the binary links nothing at run time and runs on scratch.
ENV CGO_ENABLED=0
RUN go build -trimpath -buildvcs=false \
        -ldflags "-s -w -X github.com/goodput-dev/goodput/version.stamped=${VERSION} -X github.com/goodput-dev/goodput/version.stampedRevision=${REVISION}" \
        -o /out/goodput ./cmd/goodput \
    && /out/goodput version

# distroless/static: CA certificates, /etc/passwd and tzdata, no shell.
FROM gcr.io/distroless/static-debian12:nonroot
COPY --from=build /out/goodput /goodput
# nonroot's user and group (65532), as the manifests of goodput k8s expect.
USER 65532:65532
EXPOSE 8000
ENTRYPOINT ["/goodput"]
CMD ["--help"]
