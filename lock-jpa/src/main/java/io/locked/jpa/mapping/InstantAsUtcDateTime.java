package io.locked.jpa.mapping;

import jakarta.persistence.AttributeConverter;
import jakarta.persistence.Converter;
import java.time.Instant;
import java.time.LocalDateTime;
import java.time.ZoneOffset;

/**
 * The lock row's times in a MySQL or MariaDB {@code DATETIME(6)} column, which holds UTC (as the
 * native statements and Hibernate write it), for a provider of Jakarta Persistence 3.1 without a
 * mapping of its own for {@link Instant} (EclipseLink 4). A date-time with an offset would be
 * shifted into the JVM's zone by Connector/J; a local date-time is written as it is. Applied by
 * {@code META-INF/locked/instant-mapping-mysql.xml}.
 */
@Converter
public class InstantAsUtcDateTime implements AttributeConverter<Instant, LocalDateTime> {
    @Override
    public LocalDateTime convertToDatabaseColumn(Instant instant) {
        return instant == null ? null : LocalDateTime.ofInstant(instant, ZoneOffset.UTC);
    }

    @Override
    public Instant convertToEntityAttribute(LocalDateTime column) {
        return column == null ? null : column.toInstant(ZoneOffset.UTC);
    }
}
