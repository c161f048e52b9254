package io.locked.eeapp.payara;

import jakarta.annotation.sql.DataSourceDefinition;
import jakarta.enterprise.context.ApplicationScoped;

/** The application's datasource, defined by the application as Payara users define one. */
@DataSourceDefinition(
        name = "java:app/jdbc/AppDS",
        className = "com.mysql.cj.jdbc.MysqlDataSource",
        url = "jdbc:mysql://127.0.0.1:3306/locked_payara",
        user = "locked",
        password = "locked",
        maxPoolSize = 40)
@ApplicationScoped
public class AppDataSource {
}
