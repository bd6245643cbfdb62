# gepcheck's image: the CLI, used in a cluster as gepcheck-reference
# (kind-config/gepcheck-reference.yaml runs `gepcheck controller reference`).
FROM golang:1.26 AS build
WORKDIR /src
COPY go.mod go.sum ./
RUN go mod download
COPY . .
RUN CGO_ENABLED=0 go build -trimpath -o /gepcheck ./cmd/gepcheck

FROM gcr.io/distroless/static:nonroot
COPY --from=build /gepcheck /gepcheck
# The scenario catalogue, for runs in a cluster (docs/reports.md, Shards).
COPY --from=build /src/scenarios /scenarios
ENTRYPOINT ["/gepcheck"]
