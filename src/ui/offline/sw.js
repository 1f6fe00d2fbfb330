// Turnwise service worker: after the first visit the lab, its models included, loads and runs with
// the network off. The build prepends `self.PRECACHE` (every emitted file) and `self.VERSION`.
// Hashed assets: cache first. Pages and model files: network first, cache as fallback, so a new
// build or a re-forged model is picked up whenever the network is there.
const CACHE = `turnwise-${self.VERSION}`;

self.addEventListener('install', (event) => {
  event.waitUntil(caches.open(CACHE).then((c) => c.addAll(self.PRECACHE)).then(() => self.skipWaiting()));
});

self.addEventListener('activate', (event) => {
  event.waitUntil(
    caches
      .keys()
      .then((keys) => Promise.all(keys.filter((k) => k.startsWith('turnwise-') && k !== CACHE).map((k) => caches.delete(k))))
      .then(() => self.clients.claim()),
  );
});

async function networkFirst(request) {
  const cache = await caches.open(CACHE);
  try {
    const response = await fetch(request);
    if (response.ok) await cache.put(request, response.clone());
    return response;
  } catch (e) {
    const cached = (await cache.match(request, { ignoreSearch: request.mode === 'navigate', ignoreVary: true })) ?? (request.mode === 'navigate' ? await cache.match('./', { ignoreVary: true }) : undefined);
    if (cached) return cached;
    throw e;
  }
}

async function cacheFirst(request) {
  // ignoreVary: the precache fetched without the Origin header that module and worker requests carry.
  const cached = await caches.match(request, { ignoreVary: true });
  return cached ?? networkFirst(request);
}

self.addEventListener('fetch', (event) => {
  const url = new URL(event.request.url);
  if (event.request.method !== 'GET' || url.origin !== self.location.origin) return;
  event.respondWith(url.pathname.includes('/assets/') ? cacheFirst(event.request) : networkFirst(event.request));
});
