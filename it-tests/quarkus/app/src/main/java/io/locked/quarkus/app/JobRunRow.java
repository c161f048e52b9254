package io.locked.quarkus.app;

import jakarta.persistence.Column;
import jakarta.persistence.Entity;
import jakarta.persistence.GeneratedValue;
import jakarta.persistence.GenerationType;
import jakarta.persistence.Id;
import jakarta.persistence.Table;
import java.time.Instant;

/** One run of a scheduled job, as {@link JobRuns} records it; the table comes from this mapping. */
@Entity
@Table(name = "job_run")
public class JobRunRow {
    @Id
    @GeneratedValue(strategy = GenerationType.IDENTITY)
    private Long id;

    /** The job and the test run it belongs to: {@code <run>/<job>}. */
    @Column(nullable = false)
    private String job;

    @Column(nullable = false)
    private String instance;

    /** The database's clock when the run began: the instances' own clocks are set apart on purpose. */
    @Column(name = "ran_at", nullable = false, columnDefinition = "DATETIME(6)")
    private Instant ranAt;
}
