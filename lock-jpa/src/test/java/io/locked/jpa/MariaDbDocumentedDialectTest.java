package io.locked.jpa;

import static org.junit.jupiter.api.Assertions.assertEquals;

import com.zaxxer.hikari.HikariDataSource;
import io.locked.jpa.testing.TestDatabase;
import jakarta.persistence.EntityManagerFactory;
import jakarta.persistence.Persistence;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.logging.Handler;
import java.util.logging.LogRecord;
import java.util.logging.Logger;
import org.hibernate.dialect.Dialect;
import org.hibernate.dialect.MariaDBDialect;
import org.hibernate.engine.spi.SessionFactoryImplementor;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The MariaDB set-up docs/databases.md gives for Connector/J: the driver reports the server as "5.5.5-10.x",
 * and Hibernate, reading that, took MariaDB for version 5.5.5 and warned HHH000511 ("no longer supported");
 * a dialect named in {@code hibernate.dialect} is warned about too (HHH90000025, "does not need to be specified").
 * With the documented properties Hibernate picks its MariaDB dialect for the version they name, and says nothing.
 */
class MariaDbDocumentedDialectTest {
    /** The persistence unit properties of the docs (databases.md, getting-started.md). */
    static final Map<String, Object> DOCUMENTED = Map.of(
            "jakarta.persistence.database-product-name", "MariaDB",
            "jakarta.persistence.database-product-version", "10.11");

    @BeforeAll
    static void mariaDb() {
        TestDatabase.MARIADB.requireReachable();
    }

    @Test
    void hibernateTakesTheDocumentedVersionAndDoesNotWarn() {
        List<String> warnings = new CopyOnWriteArrayList<>();
        Handler capture = new Handler() {
            @Override
            public void publish(LogRecord record) {
                String message = String.valueOf(record.getMessage());
                if (message.contains("HHH000511") || message.contains("HHH90000025")) {
                    warnings.add(message);
                }
            }

            @Override
            public void flush() {
            }

            @Override
            public void close() {
            }
        };
        Logger root = Logger.getLogger("");
        root.addHandler(capture);
        try (HikariDataSource pool = TestDatabase.MARIADB.pool(1)) {
            Map<String, Object> properties = new HashMap<>(DOCUMENTED);
            properties.put("jakarta.persistence.nonJtaDataSource", pool);
            EntityManagerFactory factory = Persistence.createEntityManagerFactory(TestDatabase.UNIT, properties);
            try {
                Dialect dialect = factory.unwrap(SessionFactoryImplementor.class).getJdbcServices().getDialect();
                assertEquals(MariaDBDialect.class, dialect.getClass());
                assertEquals("10.11", dialect.getVersion().toString().replaceAll("^(\\d+\\.\\d+).*", "$1"));
            } finally {
                factory.close();
            }
        } finally {
            root.removeHandler(capture);
        }
        assertEquals(List.of(), warnings);
    }
}
