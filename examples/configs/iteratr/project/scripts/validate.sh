#!/bin/sh
# Not shown in the seed (it only names this script): a stand-in that prints what it got.
# on_task_complete: $1 is the completed task's id ({{task_id}}).
echo "validate: task $1"
