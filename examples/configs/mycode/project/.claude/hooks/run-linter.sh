#!/bin/sh
# Not shown in the seed (the Claude Code reference only names it): a stand-in that prints
# what it got. mycode substitutes $FILE_PATH in the command, so $1 is the edited file.
echo "run-linter: $1"
