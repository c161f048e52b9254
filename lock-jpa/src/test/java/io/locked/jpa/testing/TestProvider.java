package io.locked.jpa.testing;

import java.util.HashMap;
import java.util.Map;

/**
 * The JPA providers the lock is proven on, each configured as its users configure it: only what the
 * provider needs to find the unit's data source and talk to the database, nothing for Locked.
 */
public enum TestProvider {
    HIBERNATE("org.hibernate.jpa.HibernatePersistenceProvider", TestDatabase.UNIT),
    /** EclipseLink 4, Payara's provider: its shared cache on (the default), no weaving agent in a test JVM. */
    ECLIPSELINK("org.eclipse.persistence.jpa.PersistenceProvider", "locked-test-eclipselink");

    private final String providerClass;
    private final String unit;

    TestProvider(String providerClass, String unit) {
        this.providerClass = providerClass;
        this.unit = unit;
    }

    /**
     * @param database the unit's database
     * @return the test unit of this provider on that database, written as its users write one (see persistence.xml)
     */
    public String unit(TestDatabase database) {
        boolean mySqlFamily = database == TestDatabase.MARIADB || database == TestDatabase.MYSQL8;
        return this == ECLIPSELINK && mySqlFamily ? unit + "-mysql" : unit;
    }

    /** @return the provider's class, as persistence.xml's {@code <provider>} names it */
    public String providerClass() {
        return providerClass;
    }

    /**
     * @param database the unit's database
     * @return the unit's properties for this provider on that database, beyond its data source
     */
    Map<String, Object> properties(TestDatabase database) {
        Map<String, Object> properties = new HashMap<>();
        properties.put("jakarta.persistence.provider", providerClass);
        switch (this) {
            case HIBERNATE -> {
                properties.put("hibernate.dialect", database.dialect());
                // the driver calls MariaDB "5.5.5-10.11"; say what it is rather than let Hibernate guess
                if (database == TestDatabase.MARIADB) {
                    properties.put("jakarta.persistence.database-product-name", "MariaDB");
                    properties.put("jakarta.persistence.database-major-version", 10);
                    properties.put("jakarta.persistence.database-minor-version", 11);
                }
                if (database == TestDatabase.DERBY) {
                    // a calendar per value rather than Hibernate's shared one, which Derby's driver changes
                    properties.put("hibernate.type.preferred_instant_jdbc_type", "TIMESTAMP");
                    properties.put("hibernate.jdbc.time_zone", "UTC");
                }
                properties.put("hibernate.show_sql", System.getProperty("locked.showSql", "false"));
            }
            case ECLIPSELINK -> {
                // a Java SE unit without the weaving agent: EclipseLink would otherwise warn at start-up
                properties.put("eclipselink.weaving", "false");
                // its warnings repeat what the tests provoke on purpose (a killed session, a closed pool)
                properties.put("eclipselink.logging.level", Boolean.getBoolean("locked.showSql") ? "FINE" : "SEVERE");
                properties.put("eclipselink.logging.level.sql", Boolean.getBoolean("locked.showSql") ? "FINE" : "WARNING");
                properties.put("eclipselink.logging.parameters", "true");
            }
        }
        return properties;
    }
}
