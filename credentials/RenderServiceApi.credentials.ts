import type {
	IAuthenticateGeneric,
	Icon,
	ICredentialTestRequest,
	ICredentialType,
	INodeProperties,
} from 'n8n-workflow';

export class RenderServiceApi implements ICredentialType {
	name = 'renderServiceApi';

	displayName = 'Render Service API';

	icon: Icon = {
		light: 'file:../icons/renderService.svg',
		dark: 'file:../icons/renderService.dark.svg',
	};

	documentationUrl =
		'https://github.com/render-service/n8n-nodes-render/blob/main/docs/n8n.md#credentials';

	properties: INodeProperties[] = [
		{
			displayName: 'API Key',
			name: 'apiKey',
			type: 'string',
			typeOptions: { password: true },
			required: true,
			default: '',
			description: 'Your Render Service API key. It is only ever sent to the two URLs below.',
		},
		{
			displayName: 'Base URL',
			name: 'baseUrl',
			type: 'string',
			default: 'https://api.render-service.example/v1',
			description:
				'Address of the model catalogue. Change it to point the nodes at the local emulator, e.g. http://127.0.0.1:8080.',
		},
		{
			displayName: 'Async URL',
			name: 'asyncUrl',
			type: 'string',
			default: 'https://queue.render-service.example/v1',
			description:
				'Address of the job queue (submitting jobs and waiting for them). For the local emulator, e.g. http://127.0.0.1:8081.',
		},
		{
			displayName: 'Allowed CDN Hosts',
			name: 'allowedCdnHosts',
			type: 'string',
			default: '',
			placeholder: 'e.g. cdn.render-service.example',
			description:
				'Host names result files may be downloaded from, separated by commas. Empty allows any host. Set it to guard against a compromised endpoint redirecting downloads into your network.',
		},
		{
			displayName: 'Max Download Size (MB)',
			name: 'maxDownloadMb',
			type: 'number',
			typeOptions: { minValue: 0 },
			default: 2048,
			description:
				'Largest result file accepted, so a broken or hostile CDN cannot fill memory or disk. 0 uses the default (2048 MB).',
		},
	];

	authenticate: IAuthenticateGeneric = {
		type: 'generic',
		properties: {
			headers: {
				Authorization: '=Bearer {{$credentials.apiKey}}',
			},
		},
	};

	test: ICredentialTestRequest = {
		request: {
			baseURL: '={{$credentials.baseUrl.replace(/\\/+$/, "")}}',
			url: '/models',
			method: 'GET',
		},
	};
}
