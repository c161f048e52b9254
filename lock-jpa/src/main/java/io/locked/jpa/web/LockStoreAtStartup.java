package io.locked.jpa.web;

import io.locked.spi.LockRepository;
import jakarta.enterprise.inject.Instance;
import jakarta.enterprise.inject.spi.CDI;
import jakarta.servlet.ServletContextEvent;
import jakarta.servlet.ServletContextListener;
import jakarta.servlet.annotation.WebListener;

/**
 * Creates the lock store while a web application starts, in the application's own context. Payara
 * injects the application's resources (the {@code @PersistenceUnit} handed to Locked) only in that
 * context, not yet while CDI starts, nor on the threads of its health checks: without this the store
 * would be created at the first lock, and a unit Locked cannot use would fail that call instead of
 * the deployment. Elsewhere the store exists already and this does nothing. Servlet containers find
 * the listener in {@code WEB-INF/lib}; nothing else loads it.
 */
@WebListener
public class LockStoreAtStartup implements ServletContextListener {
    @Override
    public void contextInitialized(ServletContextEvent started) {
        Instance<LockRepository> store;
        try {
            store = CDI.current().select(LockRepository.class);
        } catch (IllegalStateException noContainer) {
            return; // a web application without CDI: nothing to create
        }
        if (store.isResolvable()) {
            store.get().toString(); // created now; a failure fails the application's start, naming the cause
        }
    }
}
