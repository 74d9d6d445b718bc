module strata

go 1.26.0

require (
	github.com/cogentcore/webgpu v0.23.0
	github.com/yuin/gopher-lua v1.1.2
	golang.org/x/image v0.48.0
	gopkg.in/yaml.v3 v3.0.1
)

require (
	github.com/niemeyer/pretty v0.0.0-20200227124842-a10e7caefd8e // indirect
	gopkg.in/check.v1 v1.0.0-20200227125254-8fa46927fb4f // indirect
)
