#!/bin/sh
# Not shown in the seed (it only names this script): a stand-in that prints what it got.
# PostExecutionStart: stdin is {eventName, sessionId, workspace, timestamp, issueNumber, issueTitle}.
echo "track-execution-start: $(cat)"
