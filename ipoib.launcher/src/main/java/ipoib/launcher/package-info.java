/** Script mode of the appliance (private implementation). */
package ipoib.launcher;
