// Installs Debian's chromium when it is missing, once, before the browser test files run side by
// side (two apt-get runs at once would fight over dpkg's lock).
import { ensureChromium } from './server.mjs';

ensureChromium();
