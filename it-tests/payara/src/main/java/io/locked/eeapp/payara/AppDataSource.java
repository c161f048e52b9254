package io.locked.eeapp.payara;

import jakarta.annotation.sql.DataSourceDefinition;
import jakarta.enterprise.context.ApplicationScoped;

/**
 * The application's datasource, defined by the application as Payara users define one. Its database
 * comes from the instance's environment (Payara substitutes {@code ${ENV=...}} in the annotation), so
 * that each Payara version the tests run has a database of its own.
 */
@DataSourceDefinition(
        name = "java:app/jdbc/AppDS",
        className = "com.mysql.cj.jdbc.MysqlDataSource",
        url = "jdbc:mysql://127.0.0.1:3306/${ENV=LOCKED_APP_DATABASE}",
        user = "locked",
        password = "locked",
        maxPoolSize = 40)
@ApplicationScoped
public class AppDataSource {
}
