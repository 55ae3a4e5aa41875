#!/bin/bash
# Validates execution output before marking complete

INPUT=$(cat)
SUCCESS=$(echo "$INPUT" | jq -r '.success')
FILES_MODIFIED=$(echo "$INPUT" | jq -r '.filesModified[]?')

# Only validate successful executions
if [ "$SUCCESS" != "true" ]; then
  exit 0
fi

# Check if tests were added/modified
if ! echo "$FILES_MODIFIED" | grep -q "\.test\." && ! echo "$FILES_MODIFIED" | grep -q "\.spec\."; then
  echo "ERROR: No test files were modified" >&2
  echo "Please add tests for the implemented functionality" >&2
  exit 2  # Block completion
fi

# Run linting
if ! npm run lint --silent; then
  echo "ERROR: Linting failed" >&2
  exit 2  # Block completion
fi

exit 0
