// Preloaded into `node-red-dev validate` by validate-node-red.mjs. node-red-dev reads the
// Node-RED flow library's catalogue (catalogue.nodered.org) for two name checks (P08, N01);
// that host is not reachable from our machines, so it gets an empty catalogue here. Every
// other request (the npm registry, for the Node-RED version check) goes out unchanged.
const axios = require(require.resolve('axios', { paths: [require.resolve('node-red-dev')] }));

const realGet = axios.get.bind(axios);
axios.get = (url, ...rest) =>
	String(url).startsWith('https://catalogue.nodered.org/')
		? Promise.resolve({ status: 200, data: { modules: [] } })
		: realGet(url, ...rest);
