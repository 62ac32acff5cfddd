//! Hover snapshots over fixtures with a `$0` cursor.
