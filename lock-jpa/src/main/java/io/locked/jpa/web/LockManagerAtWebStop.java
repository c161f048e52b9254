package io.locked.jpa.web;

import io.locked.api.LockManager;
import jakarta.enterprise.inject.Instance;
import jakarta.enterprise.inject.spi.CDI;
import jakarta.servlet.ServletContextEvent;
import jakarta.servlet.ServletContextListener;
import jakarta.servlet.annotation.WebListener;

/**
 * Closes the lock manager when the web application stops, while its datasource still answers: running
 * holders finish and release, roles are given up, so another instance takes over at once. Payara
 * Micro tells the beans of {@code WEB-INF/lib} (Locked's, with their {@code Shutdown} observer) that
 * the application stops only once it has undeployed the application's datasource, about 10 s later;
 * the releases then fail, and keys and roles wait for their leases. Elsewhere the manager is closed a
 * little earlier than it would be, the same way. Servlet containers find the listener in
 * {@code WEB-INF/lib}; nothing else loads it.
 */
@WebListener
public class LockManagerAtWebStop implements ServletContextListener {
    @Override
    public void contextDestroyed(ServletContextEvent stopping) {
        Instance<LockManager> locks;
        try {
            locks = CDI.current().select(LockManager.class);
        } catch (IllegalStateException noContainer) {
            return; // a web application without CDI: no lock manager to close
        }
        if (locks.isResolvable()) {
            locks.get().close(); // Locked's own close at Shutdown then finds nothing left to do
        }
    }
}
