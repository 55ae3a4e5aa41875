#!/bin/sh
# Not shown in the seed (it only names this script): a stand-in that prints what it got.
# PostExecutionEnd: stdin is {eventName, sessionId, workspace, timestamp} + the execution result.
echo "notify-completion: $(cat)"
