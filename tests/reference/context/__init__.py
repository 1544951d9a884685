"""The context area's reference: diffs, caps and windows."""
