import { chromium } from 'playwright-core';
const [url, out, theme = 'dark', wait = '8000', h = '2400'] = process.argv.slice(2);
const browser = await chromium.launch({ executablePath: '/usr/bin/chromium', headless: true, args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking'] });
const page = await browser.newPage({ viewport: { width: 1600, height: Number(h) }, colorScheme: theme });
page.on('console', (m) => { if (m.type() === 'error' || m.type() === 'warning') console.log('console', m.type(), m.text()); });
page.on('pageerror', (e) => console.log('pageerror', e.message));
await page.goto(url);
await page.waitForTimeout(Number(wait));
// click first scan to select
const scan = page.locator('.scan-button').first();
if (await scan.count()) await scan.click();
await page.waitForTimeout(1500);
await page.screenshot({ path: out, fullPage: true });
await browser.close();
