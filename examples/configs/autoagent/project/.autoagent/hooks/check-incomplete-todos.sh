#!/bin/bash
# Stop hook - check for incomplete todos

INPUT=$(cat)
SESSION_ID=$(echo "$INPUT" | jq -r '.sessionId')

# Check if there are incomplete todos
INCOMPLETE=$(grep -c "\[ \]" TODO.md || true)

if [ "$INCOMPLETE" -gt 0 ]; then
  # Return JSON to block stopping
  cat <<EOF
{
  "decision": "block",
  "reason": "There are $INCOMPLETE incomplete todos remaining. Please complete them or mark this as intentional."
}
EOF
  exit 0
fi

echo "All todos completed, safe to stop"
exit 0
