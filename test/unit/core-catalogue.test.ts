import { clearCatalogueCache, createCatalogue } from '../../core/catalogue';
import { fakeClient, fakeTime, fakeTransport, MODELS } from './core-fakes';

beforeEach(() => clearCatalogueCache());

describe('catalogue', () => {
	it('sends the filters and filters again when the service ignores them', async () => {
		const transport = fakeTransport();
		transport.on('GET /models', { status: 200, body: { models: MODELS } });
		const models = await fakeClient(transport, fakeTime()).listModels({
			family: 'flux',
			modality: 'image',
		});
		expect(models.map((m) => m.model)).toEqual(['schnell', 'dev', 'old']);
		const url = new URL(transport.requests[0]!.url);
		expect(url.pathname).toBe('/models');
		expect(url.searchParams.get('family')).toBe('flux');
		expect(url.searchParams.get('modality')).toBe('image');
		expect(transport.requests[0]!.auth).toBe(true);
	});

	it('caches per base URL and identity for the TTL, shared across clients', async () => {
		const transport = fakeTransport();
		const time = fakeTime();
		transport.on('GET /models', { status: 200, body: MODELS });
		const options = { cacheIdentity: 'key-hash-1', catalogueTtlMs: 60_000 };
		await fakeClient(transport, time, options).listModels();
		await fakeClient(transport, time, options).catalogue();
		await fakeClient(transport, time, options).listModels({ family: 'wan' });
		expect(transport.requests).toHaveLength(1);
		await fakeClient(transport, time, { ...options, cacheIdentity: 'key-hash-2' }).listModels();
		expect(transport.requests).toHaveLength(2);
		await time.sleep(60_001);
		await fakeClient(transport, time, options).listModels();
		expect(transport.requests).toHaveLength(3);
		await fakeClient(transport, time, options).listModels({}, { fresh: true });
		expect(transport.requests).toHaveLength(4);
	});

	it('offers the helpers the editors need', () => {
		const c = createCatalogue(MODELS);
		expect(c.modalities()).toEqual(['image', 'video']);
		expect(c.families()).toEqual(['flux', 'wan']);
		expect(c.families('video')).toEqual(['wan']);
		expect(c.models_of('flux').map((m) => m.model)).toEqual(['schnell', 'dev', 'old']);
		expect(c.tasks('flux', 'dev')).toEqual(['t2i', 'i2i']);
		expect(c.formats('flux', 'schnell')).toEqual(['1024', '512']);
		expect(c.backends('flux', 'dev')).toEqual(['torch']);
		expect(c.steps('flux', 'schnell')).toEqual({ fixed: 4 });
		expect(c.steps('flux', 'dev')).toEqual({ default: 28 });
		expect(c.guidance('flux', 'dev')).toEqual([1, 10]);
		expect(c.guidance('flux', 'schnell')).toBeUndefined();
		expect(c.find('flux', 'nope')).toBeUndefined();
	});
});
