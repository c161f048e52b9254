/** What a web application needs beyond CDI: the lock store created while the application starts. */
package io.locked.jpa.web;
