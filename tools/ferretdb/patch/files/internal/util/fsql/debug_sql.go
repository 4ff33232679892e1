// Added to FerretDB v1.24.2 by the leadops project (Apache License 2.0, as the module it is added to).

package fsql

import (
	"context"
	"log/slog"
)

// debugSQL logs a statement at the debug level. The attributes (every argument, a whole
// document among them) are formatted only when that level is enabled: building a logger with
// them for nothing cost a twentieth of the process's time under write load.
func debugSQL(ctx context.Context, l *slog.Logger, direction, query string, fields []any) {
	if !l.Enabled(ctx, slog.LevelDebug) {
		return
	}

	l.With(fields...).DebugContext(ctx, direction+" "+query)
}
