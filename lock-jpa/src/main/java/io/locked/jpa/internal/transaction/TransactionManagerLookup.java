package io.locked.jpa.internal.transaction;

import io.locked.jpa.internal.connection.EclipseLinkSessions;
import io.locked.jpa.internal.connection.HibernatePresence;
import jakarta.persistence.EntityManager;
import jakarta.persistence.EntityManagerFactory;
import jakarta.transaction.TransactionManager;
import java.util.List;
import java.util.Optional;
import javax.naming.InitialContext;
import javax.naming.NamingException;

/**
 * Finds what a persistence unit's transactions run through: whether the unit is container-managed
 * (JTA), and the {@code TransactionManager} that can suspend a caller's transaction and begin the
 * lock's own. Asked in this order: the one handed to Locked (the CDI producer hands a
 * {@code TransactionManager} bean, as Quarkus has), the JPA provider's (Hibernate's JTA platform,
 * EclipseLink's external transaction controller), then the servers' well-known JNDI names.
 * Only loaded when the Jakarta Transactions API is on the class path.
 */
public final class TransactionManagerLookup {
    /** WildFly's, Payara's and GlassFish's, and the older JBoss name. */
    public static final List<String> JNDI_NAMES = List.of("java:jboss/TransactionManager",
            "java:appserver/TransactionManager", "java:/TransactionManager", "java:comp/TransactionManager");

    private TransactionManagerLookup() {
    }

    /** How the lock store runs beside a caller's transaction, and its own on the unit. */
    public record LockTransactions(CallerTransaction caller, UnitTransactions unit) {
        public static final LockTransactions RESOURCE_LOCAL = new LockTransactions(CallerTransaction.NONE, UnitTransactions.RESOURCE_LOCAL);
    }

    /**
     * @param given the transaction manager handed to Locked, or null
     * @throws IllegalStateException if the unit is JTA and no transaction manager can be found
     */
    public static LockTransactions of(EntityManagerFactory factory, TransactionManager given) {
        boolean jta = isJta(factory);
        Optional<TransactionManager> found = find(factory, given);
        if (jta && found.isEmpty()) {
            throw new IllegalStateException("The lock table's persistence unit is container-managed (JTA), and Locked"
                    + " found no TransactionManager to run the lock's own transactions with. It asked CDI, the JPA"
                    + " provider (hibernate.transaction.jta.platform, EclipseLink's target-server) and JNDI (" + String.join(", ", JNDI_NAMES)
                    + "). Produce a jakarta.transaction.TransactionManager bean, set the provider's JTA platform,"
                    + " or hand one to JpaLockRepository.builder(factory).transactionManager(...)");
        }
        // a resource-local unit on a server may still draw on a data source that enlists in the caller's transaction
        CallerTransaction caller = found.<CallerTransaction>map(JtaCallerTransaction::new).orElse(CallerTransaction.NONE);
        return new LockTransactions(caller, jta ? new JtaUnitTransactions(found.get()) : UnitTransactions.RESOURCE_LOCAL);
    }

    public static boolean apiPresent() {
        try {
            Class.forName("jakarta.transaction.TransactionManager", false, TransactionManagerLookup.class.getClassLoader());
            return true;
        } catch (ClassNotFoundException | LinkageError absent) {
            return false;
        }
    }

    /**
     * @return whether the unit's entity managers take part in JTA transactions rather than their own
     *         resource-local ones
     */
    static boolean isJta(EntityManagerFactory factory) {
        if (HibernatePresence.onClassPath()) {
            Optional<Boolean> hibernate = HibernateTransactions.isJta(factory);
            if (hibernate.isPresent()) {
                return hibernate.get();
            }
        }
        // the JPA specification: a JTA entity manager refuses the resource-local transaction
        EntityManager manager = factory.createEntityManager();
        try {
            manager.getTransaction();
            return false;
        } catch (IllegalStateException jta) {
            return true;
        } finally {
            manager.close();
        }
    }

    static Optional<TransactionManager> find(EntityManagerFactory factory, TransactionManager given) {
        if (given != null) {
            return Optional.of(given);
        }
        if (HibernatePresence.onClassPath()) {
            Optional<TransactionManager> hibernate = HibernateTransactions.transactionManager(factory);
            if (hibernate.isPresent()) {
                return hibernate;
            }
        }
        return eclipseLink(factory).or(TransactionManagerLookup::byJndi);
    }

    /** EclipseLink's server platform knows the server's manager: {@code Session.getExternalTransactionController()}. */
    private static Optional<TransactionManager> eclipseLink(EntityManagerFactory factory) {
        return EclipseLinkSessions.read(factory, (session, sessionType) -> {
            Object controller = sessionType.getMethod("getExternalTransactionController").invoke(session);
            if (controller == null) {
                return null;
            }
            Object found = controller.getClass().getMethod("getTransactionManager").invoke(controller);
            return found instanceof TransactionManager server ? server : null;
        });
    }

    private static Optional<TransactionManager> byJndi() {
        InitialContext context;
        try {
            context = new InitialContext();
        } catch (NamingException | RuntimeException noJndi) {
            return Optional.empty();
        }
        try {
            for (String name : JNDI_NAMES) {
                try {
                    if (context.lookup(name) instanceof TransactionManager found) {
                        return Optional.of(found);
                    }
                } catch (NamingException | RuntimeException notHere) {
                    // the next server's name
                }
            }
            return Optional.empty();
        } finally {
            try {
                context.close();
            } catch (NamingException ignored) {
                // nothing held
            }
        }
    }
}
