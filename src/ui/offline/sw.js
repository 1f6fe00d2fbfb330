// Turnwise service worker: after the first visit the lab, its models included, loads and runs with
// the network off. The build prepends `self.PRECACHE` (every emitted file), `self.VERSION` and
// `self.MODEL_SHA256` (page-relative model path → sha256 from the models' manifest).
// Hashed assets: cache first. Pages and model files: network first, cache as fallback, so a new
// build or a re-forged model is picked up whenever the network is there.
// Only the app and the models are cached (issue 22 point 5): every navigation is kept under the one
// page URL './' (a `?q=` per visit used to add an entry each), any other URL passes through uncached,
// and a model file whose bytes fail their sha256 is never cached and is dropped if it was.
const CACHE = `turnwise-${self.VERSION}`;
const scoped = (path) => new URL(path, self.registration.scope).href;
const APP = new Set(self.PRECACHE.map(scoped));
const SHA256 = new Map(Object.entries(self.MODEL_SHA256).map(([p, h]) => [scoped(p), h]));
const PAGE = scoped('./');

async function sha256Hex(response) {
  const digest = new Uint8Array(await crypto.subtle.digest('SHA-256', await response.arrayBuffer()));
  return Array.from(digest, (b) => b.toString(16).padStart(2, '0')).join('');
}

/** Caches `response` under `key` unless it is a model file whose bytes fail their sha256 (then drops the cached copy). */
async function keep(cache, key, response) {
  const want = SHA256.get(key);
  if (want && (await sha256Hex(response.clone())) !== want) {
    await cache.delete(key, { ignoreVary: true });
    return;
  }
  await cache.put(key, response);
}

self.addEventListener('install', (event) => {
  event.waitUntil(
    (async () => {
      const cache = await caches.open(CACHE);
      await Promise.all(
        [...APP].map(async (url) => {
          const response = await fetch(url, { cache: 'reload' });
          if (!response.ok) throw new Error(`precache: ${url} answered ${response.status}`);
          await keep(cache, url, response);
        }),
      );
      await self.skipWaiting();
    })(),
  );
});

self.addEventListener('activate', (event) => {
  event.waitUntil(
    caches
      .keys()
      .then((keys) => Promise.all(keys.filter((k) => k.startsWith('turnwise-') && k !== CACHE).map((k) => caches.delete(k))))
      .then(() => self.clients.claim()),
  );
});

async function networkFirst(request, key) {
  const cache = await caches.open(CACHE);
  try {
    const response = await fetch(request);
    if (response.ok) await keep(cache, key, response.clone());
    return response;
  } catch (e) {
    const cached = await cache.match(key, { ignoreVary: true });
    if (cached) return cached;
    throw e;
  }
}

async function cacheFirst(request, key) {
  // ignoreVary: the precache fetched without the Origin header that module and worker requests carry.
  const cached = await caches.match(key, { ignoreVary: true });
  return cached ?? networkFirst(request, key);
}

self.addEventListener('fetch', (event) => {
  const request = event.request;
  const url = new URL(request.url);
  if (request.method !== 'GET' || url.origin !== self.location.origin) return;
  if (request.mode === 'navigate') return event.respondWith(networkFirst(request, PAGE));
  const key = url.origin + url.pathname;
  if (!APP.has(key)) return; // not the app or a model: the network alone, nothing cached
  event.respondWith(url.pathname.includes('/assets/') ? cacheFirst(request, key) : networkFirst(request, key));
});
