package rego

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/open-policy-agent/opa/v1/ast"
)

// maxModuleBytes bounds one module read at load: a policy is source text, not data.
const maxModuleBytes = 4 << 20

// loadModules parses the modules of path: the file itself, or every .rego file under the
// directory (walked in lexical order) except tests (*_test.rego, which `opa test` runs and
// a guard must not: they usually mock data) and hidden entries (.git). Modules are Rego v1.
// A directory with no module is an error: an empty guard would allow everything.
func loadModules(path string) ([]*ast.Module, error) {
	info, err := os.Stat(path)
	if err != nil {
		return nil, err
	}
	var files []string
	if !info.IsDir() {
		files = []string{path}
	} else {
		err = filepath.WalkDir(path, func(p string, d fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			name := d.Name()
			if p != path && strings.HasPrefix(name, ".") {
				if d.IsDir() {
					return filepath.SkipDir
				}
				return nil
			}
			if !d.IsDir() && isModule(name) {
				files = append(files, p)
			}
			return nil
		})
		if err != nil {
			return nil, err
		}
		if len(files) == 0 {
			return nil, fmt.Errorf("%s: no .rego module in the directory", path)
		}
	}
	sort.Strings(files)
	modules := make([]*ast.Module, 0, len(files))
	var errs []error
	for _, f := range files {
		m, err := parseModule(f)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		modules = append(modules, m)
	}
	if len(errs) > 0 {
		return nil, errors.Join(errs...)
	}
	return modules, nil
}

// isModule says whether a directory entry is a module the guard loads.
func isModule(name string) bool {
	return strings.HasSuffix(name, ".rego") && !strings.HasSuffix(name, "_test.rego")
}

func parseModule(file string) (*ast.Module, error) {
	f, err := os.Open(file)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	src, err := io.ReadAll(io.LimitReader(f, maxModuleBytes+1))
	if err != nil {
		return nil, err
	}
	if len(src) > maxModuleBytes {
		return nil, fmt.Errorf("%s: module larger than %d bytes", file, maxModuleBytes)
	}
	m, err := ast.ParseModuleWithOpts(file, string(src), ast.ParserOptions{RegoVersion: ast.RegoV1})
	if err != nil {
		return nil, located(err)
	}
	return m, nil
}

// located rewrites OPA's errors as `file:line: message (code)`, one line per error, so a
// load error points at the module line as every other config error does.
func located(err error) error {
	var aerrs ast.Errors
	if !errors.As(err, &aerrs) {
		var one *ast.Error
		if !errors.As(err, &one) {
			return err
		}
		aerrs = ast.Errors{one}
	}
	aerrs.Sort()
	lines := make([]string, 0, len(aerrs))
	for _, e := range aerrs {
		where := "query"
		if e.Location != nil {
			if e.Location.File != "" {
				where = fmt.Sprintf("%s:%d", e.Location.File, e.Location.Row)
			} else {
				where = fmt.Sprintf("query:%d:%d", e.Location.Row, e.Location.Col)
			}
		}
		lines = append(lines, fmt.Sprintf("%s: %s (%s)", where, e.Message, e.Code))
	}
	return errors.New(strings.Join(lines, "\n"))
}
