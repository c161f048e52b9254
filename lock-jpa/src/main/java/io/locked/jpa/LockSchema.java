package io.locked.jpa;

import io.locked.jpa.internal.dialect.Dialect;
import io.locked.jpa.internal.schema.ShippedScript;
import java.io.PrintStream;
import java.util.Arrays;
import java.util.Locale;

/**
 * Prints the shipped schema script of a database: the lock table and the fence table of
 * {@link LockFence}, as Locked expects them, for your migrations. The scripts are in lock-jpa's jar
 * under {@code META-INF/locked/}; this prints the right one:
 * {@code java -cp lock-jpa.jar io.locked.jpa.LockSchema mariadb} (or {@code mysql}, {@code postgresql},
 * {@code h2}, as {@link LockDatabase} names them). It needs nothing else on the class path.
 */
public final class LockSchema {
    private LockSchema() {
    }

    /**
     * @param args one database name, any case: {@code mariadb}, {@code mysql}, {@code postgresql} or {@code h2}
     */
    public static void main(String[] args) {
        int status = print(args, System.out, System.err);
        if (status != 0) {
            System.exit(status);
        }
    }

    /**
     * @param database the database
     * @return its schema script, as shipped
     */
    public static String script(LockDatabase database) {
        if (database == null) {
            throw new IllegalArgumentException("LockDatabase must not be null");
        }
        return ShippedScript.of(database);
    }

    /**
     * What to do about a missing lock table: the script for this database, how to get it, and
     * {@code locked.create-table}.
     *
     * @param database the database, null for one without a script
     */
    static String missingTableAdvice(LockDatabase database) {
        String missing = "The lock table " + LockRow.TABLE + " does not exist in the lock store's database";
        if (database == null) {
            return missing + ". Locked has no script for this database: let the JPA provider create the table from "
                    + LockRow.class.getName() + " (jakarta.persistence.schema-generation.database.action=create), or create"
                    + " it with your migrations";
        }
        String name = database.name().toLowerCase(Locale.ROOT);
        return missing + " (" + database + "). Create it with Locked's script for it, " + Dialect.of(database).schemaResource
                + " in lock-jpa's jar: print it with 'java -cp lock-jpa.jar " + LockSchema.class.getName() + " " + name
                + "'; docs/databases.md shows it too. Or set locked.create-table=true and Locked creates it at start-up"
                + " (for demos and tests; use your migrations in production)";
    }

    static int print(String[] args, PrintStream out, PrintStream err) {
        String names = Arrays.toString(LockDatabase.values()).toLowerCase(Locale.ROOT);
        if (args.length != 1) {
            err.println("Usage: java -cp lock-jpa.jar " + LockSchema.class.getName() + " <database>, one of " + names);
            return 2;
        }
        LockDatabase database;
        try {
            database = LockDatabase.valueOf(args[0].trim().toUpperCase(Locale.ROOT));
        } catch (IllegalArgumentException unknown) {
            err.println("Locked has no schema script for '" + args[0] + "'; it has one for " + names
                    + ". On another database the JPA provider can create the table from " + LockRow.class.getName());
            return 2;
        }
        out.print(script(database));
        return 0;
    }
}
